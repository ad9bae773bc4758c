/**
 * NODE_ENV is `production` unless set otherwise (the Docker image sets it; `npm start` alone did not).
 * graphql-js reads it once, when loaded: in production it checks its types with a plain instanceof
 * instead of its development check for two copies of graphql in one process, which costs every
 * request (about 1.5% of a by-primary-key request's CPU). jest sets NODE_ENV=test, so the tests keep
 * the check. Imported first by the entry points (main.ts, the bench's engine), before graphql.
 */
process.env.NODE_ENV ??= 'production';
