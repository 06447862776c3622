// The kit's public surface: the client library, card and action helpers, the sample strategy,
// and the generated messages under their proto names.

export * from "./actions";
export * from "./cards";
export * from "./client";
export * from "./note";
export * from "./sampleBot";
export { runMain } from "./main";
export type { MainDefaults } from "./main";
export type { AuctionEntry, Observation, PlayedCard, Trick } from "./gen/rookery/v1/actions";
export type { ActionRequest } from "./gen/rookery/v1/bot_service";
export * as pb from "./gen/rookery/v1/bot_service";
export * as events from "./gen/rookery/v1/events";
export * as results from "./gen/rookery/v1/results";
export * as rulesets from "./gen/rookery/v1/ruleset";
export * as tables from "./gen/rookery/v1/table";
