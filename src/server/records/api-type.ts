import type { api } from './api';

/**
 * The type of the desk's API, for the island's typed client (`hc<DeskApi>`). A type only: the
 * island imports it, and no server code comes with it.
 */
export type DeskApi = typeof api;
