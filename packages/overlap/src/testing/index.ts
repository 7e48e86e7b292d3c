/** Test helpers for users of overlap: fakes and stream fixtures. */
export {
  type ExpectedToolCall,
  errorRound,
  errorRoundExpected,
  invalidJsonRound,
  invalidJsonRoundExpected,
  maxTokensRound,
  maxTokensRoundExpected,
  richRound,
  richRoundExpected,
  type StreamFixture,
  type StreamFixtureExpectation,
  shoppingRound,
  shoppingRoundExpected,
  streamFixtures,
} from "./fixtures.js";
export {
  mulberry32,
  replayChatChunks,
  replayChunked,
  splitFrames,
  splitSeeded,
  sseToStreamEvents,
} from "./replay.js";
export {
  type BuildOptions,
  buildStreamEvents,
  type FakeModel,
  type FakeResponse,
  fakeModel,
  type ReplayOptions,
  replayEvents,
  type ScriptBlock,
} from "./stream-builder.js";
