/** What a planner that logs intents sees of a call whose reply a restart lost (the runner writes it; planners read it). */
export const LOST_REPLY = 'no reply: the planner restarted before it arrived; whether the call took effect is unknown';
