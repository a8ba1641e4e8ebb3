import type { Config } from '@netlify/functions';
import { api } from '../src/server/records/api';
import { deskFunction } from '../src/server/records/router';

export const config: Config = { path: '/api/records/*' };

/** The records desk's HTTP API (src/server/records/api.ts): one function, one router. */
export default deskFunction(api);
