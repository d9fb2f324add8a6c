import t from 'tap'
import { MemoryActivity } from '../../src/store/activity.js'
import { activityCases } from '../activity-cases.js'

/* The operator's activity counts of one process under a controlled clock (the Redis store: test/replicas/activity-store.test.ts). */

t.test('the activity of one process', async (t) => {
  await activityCases(t, new MemoryActivity(), async () => {}, ['partner-a', 'partner-b'])
})
