/**
 * After each server test file, whatever it left running is killed: a test that failed before
 * stopping its server, or a start that outran its hook (harness.ts stopStudios).
 */
import { afterAll } from 'vitest';
import { stopStudios } from './harness.ts';

afterAll(stopStudios);
