import { test, expect } from 'vitest';
import { PlanUpdate, UserUpdate } from './index.js';
test('no defaults on updates', () => {
  expect(PlanUpdate.parse({ name: 'X1' })).toEqual({ name: 'X1' });
  expect(PlanUpdate.parse({ users: '3' })).toEqual({ users: 3 });
  expect(UserUpdate.parse({ name: 'Ana' })).toEqual({ name: 'Ana' });
  expect(PlanUpdate.safeParse({ users: 0 }).success).toBe(false);
});
