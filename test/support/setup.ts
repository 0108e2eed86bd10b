import { setLogSink } from '../../shared/log/logger.ts';

// The service logs one JSON line per request; in tests that is noise around the results.
// Tests that look at log lines install their own sink. NEWSLETTER_TEST_LOGS=1 shows them.
if (!process.env.NEWSLETTER_TEST_LOGS) setLogSink(() => undefined);
