import type { Config } from '@netlify/functions';
import { api } from '../src/server/records/api';
import { deskFunction } from '../src/server/records/router';

export const config: Config = {
  path: ['/api/records/sign-in', '/api/records/session', '/api/records/sign-out'],
};

/** The records desk's HTTP API (src/server/records/api.ts), as one function. */
export default deskFunction(api);
