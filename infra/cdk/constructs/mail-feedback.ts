import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  ConfigurationSet,
  ConfigurationSetEventDestination,
  EmailSendingEvent,
  EventDestination,
  HttpsPolicy,
} from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/**
 * The SES events the feedback rules read (docs/behaviour.md, "Feedback"): bounces and
 * complaints change statuses, deliveries end a run of soft bounces.
 */
export const FEEDBACK_EVENTS = [
  EmailSendingEvent.BOUNCE,
  EmailSendingEvent.COMPLAINT,
  EmailSendingEvent.DELIVERY,
] as const;

/**
 * What campaign mail to a subscriber with no bounce counted reports: no delivery event, since
 * it would end no run of soft bounces, and at one SNS publish and one feedback invocation per
 * recipient it would be most of a campaign's AWS cost (docs/storage.md, "Campaigns").
 */
export const CAMPAIGN_FEEDBACK_EVENTS = [
  EmailSendingEvent.BOUNCE,
  EmailSendingEvent.COMPLAINT,
] as const;

/** What SES reports of a tracked campaign mail besides ([engagement.tracking]): opens, clicks. */
export const ENGAGEMENT_EVENTS = [EmailSendingEvent.OPEN, EmailSendingEvent.CLICK] as const;

/** Options of the mail feedback. */
export interface MailFeedbackProps {
  /** Custom domain of the open pixel and click redirects (HTTPS required), if any. */
  readonly trackingDomain?: string;
}

/**
 * How SES's feedback comes back: the configuration set every mail is sent with, an event
 * destination that publishes its bounces, complaints and deliveries to an SNS topic, and (once
 * `subscribe` is called) the function subscribed to that topic.
 */
export class MailFeedback extends Construct {
  readonly configurationSet: ConfigurationSet;
  /** ARN of the configuration set: SES authorizes each send against it too. */
  readonly configurationSetArn: string;
  /** The set campaign mail names unless the recipient has bounces counted: no deliveries. */
  readonly campaignConfigurationSet: ConfigurationSet;
  readonly campaignConfigurationSetArn: string;
  readonly topic: Topic;
  /**
   * Tracked campaign mail ([engagement.tracking]): SES inserts its open pixel and rewrites the
   * HTML links only for mail sent with a set that has open and click events, so tracked mail
   * has sets of its own, as the untracked sets above are, with and without deliveries; test
   * mails, `campaign.tracking: off`, and every subscription mail never name them.
   */
  readonly trackedConfigurationSet: ConfigurationSet;
  readonly trackedConfigurationSetArn: string;
  readonly trackedDeliveriesConfigurationSet: ConfigurationSet;
  readonly trackedDeliveriesConfigurationSetArn: string;
  /** Where SES publishes opens and clicks; the engagement queue is subscribed to it. */
  readonly engagementTopic: Topic;

  constructor(scope: Construct, id: string, props: MailFeedbackProps = {}) {
    super(scope, id);
    // No name: CloudFormation picks one, so two stacks in one account and region never clash.
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {
      reputationMetrics: true,
      sendingEnabled: true,
    });
    this.configurationSetArn = configurationSetArn(this.configurationSet);
    this.campaignConfigurationSet = new ConfigurationSet(this, 'CampaignConfigurationSet', {
      reputationMetrics: true,
      sendingEnabled: true,
    });
    this.campaignConfigurationSetArn = configurationSetArn(this.campaignConfigurationSet);
    // Not encrypted at rest: SES cannot publish to a topic under the AWS-managed aws/sns key,
    // and a customer-managed key would guard only the seconds a notification waits for its
    // one subscriber. Only SES may publish (the topic policy the event destination adds, for
    // this configuration set), and never without TLS (cdk-nag AwsSolutions-SNS3).
    this.topic = new Topic(this, 'Topic', {
      displayName: 'SES bounces, complaints and deliveries of the newsletter mailer',
      enforceSSL: true,
    });
    // Adds the topic policy that lets SES publish, for this configuration set only.
    new ConfigurationSetEventDestination(this, 'ToTopic', {
      configurationSet: this.configurationSet,
      destination: EventDestination.snsTopic(this.topic),
      events: [...FEEDBACK_EVENTS],
    });
    new ConfigurationSetEventDestination(this, 'CampaignToTopic', {
      configurationSet: this.campaignConfigurationSet,
      destination: EventDestination.snsTopic(this.topic),
      events: [...CAMPAIGN_FEEDBACK_EVENTS],
    });

    const tracking = props.trackingDomain
      ? {
          customTrackingRedirectDomain: props.trackingDomain,
          customTrackingHttpsPolicy: HttpsPolicy.REQUIRE,
        }
      : {};
    this.trackedConfigurationSet = new ConfigurationSet(this, 'TrackedConfigurationSet', {
      reputationMetrics: true,
      sendingEnabled: true,
      ...tracking,
    });
    this.trackedConfigurationSetArn = configurationSetArn(this.trackedConfigurationSet);
    this.trackedDeliveriesConfigurationSet = new ConfigurationSet(
      this,
      'TrackedDeliveriesConfigurationSet',
      { reputationMetrics: true, sendingEnabled: true, ...tracking },
    );
    this.trackedDeliveriesConfigurationSetArn = configurationSetArn(
      this.trackedDeliveriesConfigurationSet,
    );
    // Opens and clicks go to a topic of their own: its subscriber is a queue (a burst is
    // batched), where bounces and complaints go to a function one notification at a time.
    this.engagementTopic = new Topic(this, 'EngagementTopic', {
      displayName: 'SES opens and clicks of tracked campaign mail',
      enforceSSL: true,
    });
    new ConfigurationSetEventDestination(this, 'TrackedToTopic', {
      configurationSet: this.trackedConfigurationSet,
      destination: EventDestination.snsTopic(this.topic),
      events: [...CAMPAIGN_FEEDBACK_EVENTS],
    });
    new ConfigurationSetEventDestination(this, 'TrackedDeliveriesToTopic', {
      configurationSet: this.trackedDeliveriesConfigurationSet,
      destination: EventDestination.snsTopic(this.topic),
      events: [...FEEDBACK_EVENTS],
    });
    new ConfigurationSetEventDestination(this, 'TrackedToEngagement', {
      configurationSet: this.trackedConfigurationSet,
      destination: EventDestination.snsTopic(this.engagementTopic),
      events: [...ENGAGEMENT_EVENTS],
    });
    new ConfigurationSetEventDestination(this, 'TrackedDeliveriesToEngagement', {
      configurationSet: this.trackedDeliveriesConfigurationSet,
      destination: EventDestination.snsTopic(this.engagementTopic),
      events: [...ENGAGEMENT_EVENTS],
    });
  }

  /** Subscribes the function that applies the feedback; SNS invokes it asynchronously. */
  subscribe(fn: IFunction): void {
    this.topic.addSubscription(new LambdaSubscription(fn));
  }
}

function configurationSetArn(set: ConfigurationSet): string {
  return Stack.of(set).formatArn({
    service: 'ses',
    resource: 'configuration-set',
    resourceName: set.configurationSetName,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}
