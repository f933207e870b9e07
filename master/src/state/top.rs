//! State top files: gathered from each environment and merged by
//! `top_file_merging_strategy` (merge / same / merge_all), `env_order`,
//! `default_top`, `state_top_saltenv`; matched against the minion.
