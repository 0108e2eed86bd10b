// The bare side of the warm comparison: the functions' own DynamoDB client factory and the
// document commands, bundled with the functions' options (bench/warm.ts), so that the bare
// calls run the same SDK build as the handlers and only the handler's own work differs.
export {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
export { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
