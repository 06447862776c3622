//! The field numbers of every message of proto/rookery/v1, for the core's protobuf
//! writer (`requests`). Generated from the .proto files by `make proto`
//! (wire/generate_field_numbers.py --rust): never edit it.

/// `Bid` (actions.proto).
pub mod bid {
    pub const AMOUNT: u32 = 1;
}

/// `Pass` (actions.proto).
pub mod pass {}

/// `NameTrump` (actions.proto).
pub mod name_trump {
    pub const SUIT: u32 = 1;
}

/// `BuryCards` (actions.proto).
pub mod bury_cards {
    pub const CARDS: u32 = 1;
}

/// `CallCard` (actions.proto).
pub mod call_card {
    pub const CARD: u32 = 1;
}

/// `PlayCard` (actions.proto).
pub mod play_card {
    pub const CARD: u32 = 1;
}

/// `Action` (actions.proto).
pub mod action {
    pub const BID: u32 = 1;
    pub const PASS: u32 = 2;
    pub const NAME_TRUMP: u32 = 3;
    pub const BURY: u32 = 4;
    pub const CALL_CARD: u32 = 5;
    pub const PLAY_CARD: u32 = 6;
}

/// `LegalActions` (actions.proto).
pub mod legal_actions {
    pub const PHASE: u32 = 1;
    pub const SEAT: u32 = 2;
    pub const CAN_PASS: u32 = 3;
    pub const BIDS: u32 = 4;
    pub const TRUMP_SUITS: u32 = 5;
    pub const BURY_CANDIDATES: u32 = 6;
    pub const BURY_COUNT: u32 = 7;
    pub const CALLABLE_CARDS: u32 = 8;
    pub const PLAYABLE_CARDS: u32 = 9;
}

/// `AuctionEntry` (actions.proto).
pub mod auction_entry {
    pub const SEAT: u32 = 1;
    pub const AMOUNT: u32 = 2;
}

/// `PlayedCard` (actions.proto).
pub mod played_card {
    pub const SEAT: u32 = 1;
    pub const CARD: u32 = 2;
}

/// `Trick` (actions.proto).
pub mod trick {
    pub const LEADER: u32 = 1;
    pub const CARDS: u32 = 2;
    pub const WINNER: u32 = 3;
    pub const POINTS: u32 = 4;
}

/// `Observation` (actions.proto).
pub mod observation {
    pub const RULESET: u32 = 1;
    pub const SEAT: u32 = 2;
    pub const HAND_NUMBER: u32 = 3;
    pub const DEALER: u32 = 4;
    pub const PHASE: u32 = 5;
    pub const CURRENT_PLAYER: u32 = 6;
    pub const HAND: u32 = 7;
    pub const NEST: u32 = 8;
    pub const AUCTION: u32 = 9;
    pub const HIGH_BID: u32 = 10;
    pub const HIGH_BIDDER: u32 = 11;
    pub const BIDDER: u32 = 12;
    pub const BID: u32 = 13;
    pub const TRUMP: u32 = 14;
    pub const BURIED: u32 = 15;
    pub const BURIED_COUNT: u32 = 16;
    pub const CALLED_CARD: u32 = 17;
    pub const PARTNER: u32 = 18;
    pub const PARTNER_REVEALED: u32 = 19;
    pub const CURRENT_TRICK: u32 = 20;
    pub const COMPLETED_TRICKS: u32 = 21;
    pub const POINTS_CAPTURED: u32 = 22;
    pub const SCORES: u32 = 23;
    pub const SIDES: u32 = 24;
}

/// `CardMasks` (actions.proto).
pub mod card_masks {
    pub const HAND: u32 = 1;
    pub const NEST: u32 = 2;
    pub const BURIED: u32 = 3;
    pub const BURY_CANDIDATES: u32 = 4;
    pub const CALLABLE_CARDS: u32 = 5;
    pub const PLAYABLE_CARDS: u32 = 6;
}

/// `BotInfo` (arena_service.proto).
pub mod bot_info {
    pub const NAME: u32 = 1;
    pub const CREATED_AT: u32 = 2;
    pub const CONNECTED: u32 = 3;
    pub const VERSION: u32 = 4;
    pub const ACTIVE: u32 = 5;
}

/// `AddBotRequest` (arena_service.proto).
pub mod add_bot_request {
    pub const NAME: u32 = 1;
}

/// `AddBotResponse` (arena_service.proto).
pub mod add_bot_response {
    pub const BOT: u32 = 1;
    pub const TOKEN: u32 = 2;
}

/// `ListBotsRequest` (arena_service.proto).
pub mod list_bots_request {}

/// `ListBotsResponse` (arena_service.proto).
pub mod list_bots_response {
    pub const BOTS: u32 = 1;
}

/// `RemoveBotRequest` (arena_service.proto).
pub mod remove_bot_request {
    pub const NAME: u32 = 1;
}

/// `RemoveBotResponse` (arena_service.proto).
pub mod remove_bot_response {}

/// `CreateTableRequest` (arena_service.proto).
pub mod create_table_request {
    pub const PRESET: u32 = 1;
    pub const RULESET: u32 = 2;
    pub const SEED: u32 = 3;
    pub const SEAT_BOTS: u32 = 4;
    pub const TIME_CONTROL: u32 = 5;
}

/// `CreateTableResponse` (arena_service.proto).
pub mod create_table_response {
    pub const TABLE: u32 = 1;
}

/// `ListTablesRequest` (arena_service.proto).
pub mod list_tables_request {
    pub const STATUS: u32 = 1;
}

/// `ListTablesResponse` (arena_service.proto).
pub mod list_tables_response {
    pub const TABLES: u32 = 1;
}

/// `GetTableRequest` (arena_service.proto).
pub mod get_table_request {
    pub const TABLE_ID: u32 = 1;
}

/// `GetTableResponse` (arena_service.proto).
pub mod get_table_response {
    pub const TABLE: u32 = 1;
}

/// `AbortTableRequest` (arena_service.proto).
pub mod abort_table_request {
    pub const TABLE_ID: u32 = 1;
}

/// `AbortTableResponse` (arena_service.proto).
pub mod abort_table_response {
    pub const TABLE: u32 = 1;
}

/// `GetReplayRequest` (arena_service.proto).
pub mod get_replay_request {
    pub const TABLE_ID: u32 = 1;
}

/// `GetReplayResponse` (arena_service.proto).
pub mod get_replay_response {
    pub const REPLAY: u32 = 1;
}

/// `TournamentBot` (arena_service.proto).
pub mod tournament_bot {
    pub const NAME: u32 = 1;
    pub const COMMAND: u32 = 2;
}

/// `SprtParams` (arena_service.proto).
pub mod sprt_params {
    pub const ELO0: u32 = 1;
    pub const ELO1: u32 = 2;
    pub const ALPHA: u32 = 3;
    pub const BETA: u32 = 4;
}

/// `TournamentSpec` (arena_service.proto).
pub mod tournament_spec {
    pub const NAME: u32 = 1;
    pub const FORMAT: u32 = 2;
    pub const BOTS: u32 = 3;
    pub const RULESET: u32 = 4;
    pub const GAMES: u32 = 5;
    pub const DUPLICATE: u32 = 6;
    pub const CONCURRENCY: u32 = 7;
    pub const SEED: u32 = 8;
    pub const TIME_CONTROL: u32 = 9;
    pub const SPRT: u32 = 10;
}

/// `TournamentInfo` (arena_service.proto).
pub mod tournament_info {
    pub const TOURNAMENT_ID: u32 = 1;
    pub const SPEC: u32 = 2;
    pub const STATUS: u32 = 3;
    pub const GAMES_DONE: u32 = 4;
    pub const GAMES_TOTAL: u32 = 5;
    pub const SPRT_DECISION: u32 = 6;
    pub const SPRT_LLR: u32 = 7;
}

/// `CreateTournamentRequest` (arena_service.proto).
pub mod create_tournament_request {
    pub const SPEC: u32 = 1;
}

/// `CreateTournamentResponse` (arena_service.proto).
pub mod create_tournament_response {
    pub const TOURNAMENT: u32 = 1;
}

/// `GetTournamentRequest` (arena_service.proto).
pub mod get_tournament_request {
    pub const TOURNAMENT_ID: u32 = 1;
}

/// `GetTournamentResponse` (arena_service.proto).
pub mod get_tournament_response {
    pub const TOURNAMENT: u32 = 1;
}

/// `ListTournamentsRequest` (arena_service.proto).
pub mod list_tournaments_request {}

/// `ListTournamentsResponse` (arena_service.proto).
pub mod list_tournaments_response {
    pub const TOURNAMENTS: u32 = 1;
}

/// `GameSummary` (arena_service.proto).
pub mod game_summary {
    pub const GAME_ID: u32 = 1;
    pub const SEED: u32 = 2;
    pub const SEATS: u32 = 3;
    pub const RESULT: u32 = 4;
    pub const DURATION_MS: u32 = 5;
    pub const PAIR_INDEX: u32 = 6;
}

/// `ListGamesRequest` (arena_service.proto).
pub mod list_games_request {
    pub const TOURNAMENT_ID: u32 = 1;
    pub const LIMIT: u32 = 2;
}

/// `ListGamesResponse` (arena_service.proto).
pub mod list_games_response {
    pub const GAMES: u32 = 1;
}

/// `Standing` (arena_service.proto).
pub mod standing {
    pub const BOT_NAME: u32 = 1;
    pub const ELO: u32 = 2;
    pub const ELO_ERROR: u32 = 3;
    pub const GAMES: u32 = 4;
    pub const WINS: u32 = 5;
    pub const LOSSES: u32 = 6;
    pub const DRAWS: u32 = 7;
    pub const POINT_DIFFERENCE: u32 = 8;
    pub const TIMEOUTS: u32 = 9;
    pub const CRASHES: u32 = 10;
    pub const ILLEGAL_REPLIES: u32 = 11;
    pub const FALLBACKS: u32 = 12;
}

/// `GetStandingsRequest` (arena_service.proto).
pub mod get_standings_request {
    pub const TOURNAMENT_ID: u32 = 1;
}

/// `GetStandingsResponse` (arena_service.proto).
pub mod get_standings_response {
    pub const STANDINGS: u32 = 1;
}

/// `Hello` (bot_service.proto).
pub mod hello {
    pub const NAME: u32 = 1;
    pub const VERSION: u32 = 2;
    pub const TOKEN: u32 = 3;
    pub const MAX_TABLES: u32 = 4;
    pub const RESUME: u32 = 5;
    pub const CLIENT: u32 = 6;
    pub const OBSERVATIONS_ONLY: u32 = 7;
    pub const BATCHING: u32 = 8;
    pub const DEFER_EVENTS: u32 = 20;
    pub const CARD_MASKS: u32 = 21;
    pub const GROUP_EVENTS: u32 = 22;
}

/// `Resume` (bot_service.proto).
pub mod resume {
    pub const SESSION_ID: u32 = 1;
    pub const RESUME_SECRET: u32 = 2;
    pub const CURSORS: u32 = 3;
}

/// `TableCursor` (bot_service.proto).
pub mod table_cursor {
    pub const TABLE_ID: u32 = 1;
    pub const LAST_SEQ: u32 = 2;
}

/// `ActionReply` (bot_service.proto).
pub mod action_reply {
    pub const TABLE_ID: u32 = 1;
    pub const REQUEST_ID: u32 = 2;
    pub const ACTION: u32 = 3;
    pub const NOTE: u32 = 4;
    pub const FALLBACK: u32 = 5;
}

/// `Ping` (bot_service.proto).
pub mod ping {
    pub const NONCE: u32 = 1;
}

/// `ReplyBatch` (bot_service.proto).
pub mod reply_batch {
    pub const REPLIES: u32 = 1;
}

/// `ConnectRequest` (bot_service.proto).
pub mod connect_request {
    pub const HELLO: u32 = 1;
    pub const ACTION_REPLY: u32 = 2;
    pub const PING: u32 = 3;
    pub const BATCH: u32 = 4;
}

/// `Welcome` (bot_service.proto).
pub mod welcome {
    pub const SESSION_ID: u32 = 1;
    pub const RESUME_SECRET: u32 = 2;
    pub const SERVER_VERSION: u32 = 3;
    pub const MAX_TABLES: u32 = 4;
    pub const GRACE_MS: u32 = 5;
    pub const IDLE_TIMEOUT_MS: u32 = 6;
    pub const RESUMED: u32 = 7;
    pub const BATCHING: u32 = 8;
    pub const SERVER_NAME: u32 = 9;
}

/// `TableJoined` (bot_service.proto).
pub mod table_joined {
    pub const TABLE_ID: u32 = 1;
    pub const SEAT: u32 = 2;
    pub const RULESET: u32 = 3;
    pub const SEATS: u32 = 4;
    pub const TIME_CONTROL: u32 = 5;
    pub const GAME_NUMBER: u32 = 6;
    pub const BOT_SEED: u32 = 7;
}

/// `TableEvent` (bot_service.proto).
pub mod table_event {
    pub const TABLE_ID: u32 = 1;
    pub const EVENT: u32 = 2;
}

/// `TableEvents` (bot_service.proto).
pub mod table_events {
    pub const TABLE_ID: u32 = 1;
    pub const EVENTS: u32 = 2;
}

/// `ActionRequest` (bot_service.proto).
pub mod action_request {
    pub const TABLE_ID: u32 = 1;
    pub const REQUEST_ID: u32 = 2;
    pub const SEAT: u32 = 3;
    pub const OBSERVATION: u32 = 4;
    pub const LEGAL_ACTIONS: u32 = 5;
    pub const DEADLINE_MS: u32 = 6;
    pub const BANK_MS: u32 = 7;
    pub const LAST_SEQ: u32 = 8;
    pub const CARD_MASKS: u32 = 20;
}

/// `ActionRejected` (bot_service.proto).
pub mod action_rejected {
    pub const TABLE_ID: u32 = 1;
    pub const REQUEST_ID: u32 = 2;
    pub const REASON: u32 = 3;
    pub const MESSAGE: u32 = 4;
}

/// `TableFinished` (bot_service.proto).
pub mod table_finished {
    pub const TABLE_ID: u32 = 1;
    pub const RESULT: u32 = 2;
    pub const SEAT: u32 = 3;
}

/// `TableSnapshot` (bot_service.proto).
pub mod table_snapshot {
    pub const TABLE: u32 = 1;
    pub const OBSERVATION: u32 = 2;
    pub const MISSED_EVENTS: u32 = 3;
}

/// `Pong` (bot_service.proto).
pub mod pong {
    pub const NONCE: u32 = 1;
}

/// `ConnectResponse` (bot_service.proto).
pub mod connect_response {
    pub const WELCOME: u32 = 1;
    pub const TABLE_JOINED: u32 = 2;
    pub const EVENT: u32 = 3;
    pub const ACTION_REQUEST: u32 = 4;
    pub const ACTION_REJECTED: u32 = 5;
    pub const TABLE_FINISHED: u32 = 6;
    pub const TABLE_SNAPSHOT: u32 = 7;
    pub const PONG: u32 = 8;
    pub const BATCH: u32 = 9;
    pub const TABLE_EVENTS: u32 = 10;
}

/// `ResponseBatch` (bot_service.proto).
pub mod response_batch {
    pub const MESSAGES: u32 = 1;
}

/// `Card` (cards.proto).
pub mod card {
    pub const SUIT: u32 = 1;
    pub const RANK: u32 = 2;
    pub const ROOK: u32 = 3;
}

/// `HandDealt` (events.proto).
pub mod hand_dealt {
    pub const DEALER: u32 = 1;
    pub const YOUR_CARDS: u32 = 2;
    pub const HAND_SIZE: u32 = 3;
    pub const NEST_SIZE: u32 = 4;
}

/// `BidMade` (events.proto).
pub mod bid_made {
    pub const SEAT: u32 = 1;
    pub const AMOUNT: u32 = 2;
}

/// `Passed` (events.proto).
pub mod passed {
    pub const SEAT: u32 = 1;
}

/// `AuctionWon` (events.proto).
pub mod auction_won {
    pub const SEAT: u32 = 1;
    pub const AMOUNT: u32 = 2;
    pub const FORCED: u32 = 3;
}

/// `NestTaken` (events.proto).
pub mod nest_taken {
    pub const SEAT: u32 = 1;
    pub const CARDS: u32 = 2;
    pub const COUNT: u32 = 3;
}

/// `TrumpNamed` (events.proto).
pub mod trump_named {
    pub const SEAT: u32 = 1;
    pub const SUIT: u32 = 2;
}

/// `CardsBuried` (events.proto).
pub mod cards_buried {
    pub const SEAT: u32 = 1;
    pub const CARDS: u32 = 2;
    pub const COUNT: u32 = 3;
}

/// `CardCalled` (events.proto).
pub mod card_called {
    pub const SEAT: u32 = 1;
    pub const CARD: u32 = 2;
}

/// `PartnerRevealed` (events.proto).
pub mod partner_revealed {
    pub const SEAT: u32 = 1;
}

/// `CardPlayed` (events.proto).
pub mod card_played {
    pub const SEAT: u32 = 1;
    pub const CARD: u32 = 2;
}

/// `TrickWon` (events.proto).
pub mod trick_won {
    pub const SEAT: u32 = 1;
    pub const POINTS: u32 = 2;
    pub const TRICK_INDEX: u32 = 3;
}

/// `HandScored` (events.proto).
pub mod hand_scored {
    pub const RESULT: u32 = 1;
}

/// `GameOver` (events.proto).
pub mod game_over {
    pub const RESULT: u32 = 1;
}

/// `Event` (events.proto).
pub mod event {
    pub const SEQ: u32 = 1;
    pub const HAND_NUMBER: u32 = 2;
    pub const HAND_DEALT: u32 = 10;
    pub const BID_MADE: u32 = 11;
    pub const PASSED: u32 = 12;
    pub const AUCTION_WON: u32 = 13;
    pub const NEST_TAKEN: u32 = 14;
    pub const TRUMP_NAMED: u32 = 15;
    pub const CARDS_BURIED: u32 = 16;
    pub const CARD_CALLED: u32 = 17;
    pub const PARTNER_REVEALED: u32 = 18;
    pub const CARD_PLAYED: u32 = 19;
    pub const TRICK_WON: u32 = 20;
    pub const HAND_SCORED: u32 = 21;
    pub const GAME_OVER: u32 = 22;
}

/// `Season` (league.proto).
pub mod season {
    pub const SEASON_ID: u32 = 1;
    pub const NAME: u32 = 2;
    pub const DEADLINE: u32 = 3;
    pub const STATUS: u32 = 4;
    pub const CONFIDENCE: u32 = 5;
    pub const FINAL_PAIR_BUDGET: u32 = 6;
    pub const FINAL_PAIRS_PLAYED: u32 = 7;
    pub const PAIRS_PLAYED: u32 = 8;
}

/// `BotVersion` (league.proto).
pub mod bot_version {
    pub const VERSION_ID: u32 = 1;
    pub const BOT_NAME: u32 = 2;
    pub const NUMBER: u32 = 3;
    pub const CONTENT_SHA256: u32 = 4;
    pub const COMMAND: u32 = 5;
    pub const BUILD: u32 = 6;
    pub const STATUS: u32 = 7;
    pub const DETAIL: u32 = 8;
    pub const SUBMITTED_AT: u32 = 9;
    pub const ELO: u32 = 10;
    pub const ELO_ERROR: u32 = 11;
    pub const GAMES: u32 = 12;
    pub const NOTE: u32 = 13;
}

/// `SubmitVersionRequest` (league.proto).
pub mod submit_version_request {
    pub const BOT_NAME: u32 = 1;
    pub const COMMAND: u32 = 2;
    pub const ARCHIVE: u32 = 3;
    pub const LOCAL_FOLDER: u32 = 4;
    pub const BUILD: u32 = 5;
    pub const NOTE: u32 = 6;
}

/// `SubmitVersionUploadRequest` (league.proto).
pub mod submit_version_upload_request {
    pub const REQUEST: u32 = 1;
    pub const ARCHIVE_CHUNK: u32 = 2;
}

/// `SubmitVersionResponse` (league.proto).
pub mod submit_version_response {
    pub const VERSION: u32 = 1;
}

/// `SubmitVersionUploadResponse` (league.proto).
pub mod submit_version_upload_response {
    pub const VERSION: u32 = 1;
}

/// `ListVersionsRequest` (league.proto).
pub mod list_versions_request {
    pub const BOT_NAME: u32 = 1;
}

/// `ListVersionsResponse` (league.proto).
pub mod list_versions_response {
    pub const VERSIONS: u32 = 1;
}

/// `GetVersionRequest` (league.proto).
pub mod get_version_request {
    pub const VERSION_ID: u32 = 1;
    pub const RUNTIME_LOG_BYTES: u32 = 2;
}

/// `GetVersionResponse` (league.proto).
pub mod get_version_response {
    pub const VERSION: u32 = 1;
    pub const BUILD_LOG: u32 = 2;
    pub const RUNTIME_LOG: u32 = 3;
}

/// `RetireVersionRequest` (league.proto).
pub mod retire_version_request {
    pub const VERSION_ID: u32 = 1;
}

/// `RetireVersionResponse` (league.proto).
pub mod retire_version_response {
    pub const VERSION: u32 = 1;
}

/// `DisqualifyVersionRequest` (league.proto).
pub mod disqualify_version_request {
    pub const VERSION_ID: u32 = 1;
    pub const REASON: u32 = 2;
}

/// `DisqualifyVersionResponse` (league.proto).
pub mod disqualify_version_response {
    pub const VERSION: u32 = 1;
}

/// `ChallengeRequest` (league.proto).
pub mod challenge_request {
    pub const VERSION_ID: u32 = 1;
    pub const OPPONENT_VERSION_ID: u32 = 2;
    pub const PAIRS: u32 = 3;
    pub const RATED: u32 = 4;
}

/// `ChallengeResponse` (league.proto).
pub mod challenge_response {
    pub const CHALLENGE_ID: u32 = 1;
}

/// `LeagueStanding` (league.proto).
pub mod league_standing {
    pub const RANK: u32 = 1;
    pub const VERSION: u32 = 2;
    pub const LOWER: u32 = 3;
    pub const UPPER: u32 = 4;
    pub const TIED_WITH_NEXT: u32 = 5;
}

/// `GetLeagueBoardRequest` (league.proto).
pub mod get_league_board_request {
    pub const ALL_VERSIONS: u32 = 1;
}

/// `GetLeagueBoardResponse` (league.proto).
pub mod get_league_board_response {
    pub const SEASON: u32 = 1;
    pub const STANDINGS: u32 = 2;
    pub const VERDICTS: u32 = 3;
}

/// `CreateSeasonRequest` (league.proto).
pub mod create_season_request {
    pub const NAME: u32 = 1;
    pub const DEADLINE: u32 = 2;
    pub const CONFIDENCE: u32 = 3;
    pub const FINAL_PAIR_BUDGET: u32 = 4;
}

/// `CreateSeasonResponse` (league.proto).
pub mod create_season_response {
    pub const SEASON: u32 = 1;
}

/// `StartFinalEvaluationRequest` (league.proto).
pub mod start_final_evaluation_request {}

/// `StartFinalEvaluationResponse` (league.proto).
pub mod start_final_evaluation_response {
    pub const SEASON: u32 = 1;
}

/// `BotNote` (notes.proto).
pub mod bot_note {
    pub const TEXT: u32 = 1;
    pub const VALUES: u32 = 2;
}

/// `Fallback` (notes.proto).
pub mod fallback {
    pub const REASON: u32 = 1;
}

/// `ReplayHeader` (replay.proto).
pub mod replay_header {
    pub const RULESET: u32 = 1;
    pub const SEED: u32 = 2;
    pub const SEATS: u32 = 3;
    pub const START_TIME: u32 = 4;
    pub const SERVER_VERSION: u32 = 5;
    pub const TABLE_ID: u32 = 6;
    pub const TOURNAMENT_ID: u32 = 7;
    pub const TIME_CONTROL: u32 = 8;
}

/// `ReplayAction` (replay.proto).
pub mod replay_action {
    pub const SEAT: u32 = 1;
    pub const ACTION: u32 = 2;
    pub const THINK_MS: u32 = 3;
    pub const OUTCOME: u32 = 4;
    pub const REJECTION_REASON: u32 = 5;
    pub const NOTE: u32 = 6;
    pub const FALLBACK: u32 = 7;
}

/// `ReplayHand` (replay.proto).
pub mod replay_hand {
    pub const HAND_NUMBER: u32 = 1;
    pub const DEALER: u32 = 2;
    pub const DEAL: u32 = 3;
    pub const ACTIONS: u32 = 4;
    pub const RESULT: u32 = 5;
}

/// `Replay` (replay.proto).
pub mod replay {
    pub const HEADER: u32 = 1;
    pub const HANDS: u32 = 2;
    pub const RESULT: u32 = 3;
}

/// `ReplayRecord` (replay.proto).
pub mod replay_record {
    pub const HEADER: u32 = 1;
    pub const HAND: u32 = 2;
    pub const RESULT: u32 = 3;
}

/// `Deal` (results.proto).
pub mod deal {
    pub const HANDS: u32 = 1;
    pub const NEST: u32 = 2;
    pub const DEAD: u32 = 3;
}

/// `CardList` (results.proto).
pub mod card_list {
    pub const CARDS: u32 = 1;
}

/// `HandResult` (results.proto).
pub mod hand_result {
    pub const HAND_NUMBER: u32 = 1;
    pub const DEALER: u32 = 2;
    pub const REDEAL: u32 = 3;
    pub const BIDDER: u32 = 4;
    pub const BID: u32 = 5;
    pub const TRUMP: u32 = 6;
    pub const MADE: u32 = 7;
    pub const POINTS: u32 = 8;
    pub const SCORE_DELTAS: u32 = 9;
    pub const SCORES: u32 = 10;
    pub const DEAL: u32 = 11;
    pub const BURIED: u32 = 12;
    pub const CALLED_CARD: u32 = 13;
    pub const PARTNER: u32 = 14;
}

/// `GameResult` (results.proto).
pub mod game_result {
    pub const WINNERS: u32 = 1;
    pub const SCORES: u32 = 2;
    pub const HANDS_PLAYED: u32 = 3;
    pub const REASON: u32 = 4;
    pub const FORFEIT_SEAT: u32 = 5;
    pub const DETAIL: u32 = 6;
}

/// `Ruleset` (ruleset.proto).
pub mod ruleset {
    pub const NAME: u32 = 1;
    pub const PLAYERS: u32 = 2;
    pub const PARTNERSHIP: u32 = 3;
    pub const LOWEST_RANK: u32 = 4;
    pub const ROOK_CARDS: u32 = 5;
    pub const NEST_SIZE: u32 = 6;
    pub const MIN_BID: u32 = 7;
    pub const BID_STEP: u32 = 8;
    pub const MAX_BID: u32 = 9;
    pub const FIRST_LEAD: u32 = 10;
    pub const ALL_PASS: u32 = 11;
    pub const TRUMP_FIRST: u32 = 12;
    pub const ROOK_FREE_PLAY: u32 = 13;
    pub const BOTH_OVER: u32 = 14;
    pub const TARGET: u32 = 15;
    pub const MAX_HANDS: u32 = 16;
    pub const LAST_TRICK_BONUS: u32 = 17;
    pub const FIRST_DEALER: u32 = 18;
    pub const HAND_SEEDS: u32 = 19;
}

/// `ListLiveTablesRequest` (spectator_service.proto).
pub mod list_live_tables_request {
    pub const INCLUDE_FINISHED: u32 = 1;
}

/// `ListLiveTablesResponse` (spectator_service.proto).
pub mod list_live_tables_response {
    pub const TABLES: u32 = 1;
}

/// `WatchTableRequest` (spectator_service.proto).
pub mod watch_table_request {
    pub const TABLE_ID: u32 = 1;
    pub const AFTER_SEQ: u32 = 2;
}

/// `WatchTableResponse` (spectator_service.proto).
pub mod watch_table_response {
    pub const SNAPSHOT: u32 = 1;
    pub const EVENT: u32 = 2;
}

/// `PublicSnapshot` (spectator_service.proto).
pub mod public_snapshot {
    pub const TABLE: u32 = 1;
    pub const OBSERVATION: u32 = 2;
    pub const LAST_SEQ: u32 = 3;
}

/// `TimeControl` (table.proto).
pub mod time_control {
    pub const ACTION_MS: u32 = 1;
    pub const BANK_MS: u32 = 2;
    pub const LATE_POLICY: u32 = 3;
    pub const STRIKE_LIMIT: u32 = 4;
    pub const GRACE_MS: u32 = 5;
}

/// `SeatInfo` (table.proto).
pub mod seat_info {
    pub const SEAT: u32 = 1;
    pub const SIDE: u32 = 2;
    pub const BOT_NAME: u32 = 3;
    pub const BOT_VERSION: u32 = 4;
}

/// `TableSummary` (table.proto).
pub mod table_summary {
    pub const TABLE_ID: u32 = 1;
    pub const RULESET: u32 = 2;
    pub const SEATS: u32 = 3;
    pub const STATUS: u32 = 4;
    pub const HAND_NUMBER: u32 = 5;
    pub const SCORES: u32 = 6;
    pub const RESULT: u32 = 7;
    pub const TIME_CONTROL: u32 = 8;
    pub const CREATED_AT: u32 = 9;
    pub const TOURNAMENT_ID: u32 = 10;
}
