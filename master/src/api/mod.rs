//! `brine-api`: salt-api's `rest_cherrypy` interface in front of the
//! master, for Salt's own clients (pepper, SaltGUI, CI pipelines). A
//! request's path: [`listen`] (connections, TLS) → [`server`] (routes,
//! bodies, bounds) → [`eauth`] (who a
//! login is) and [`tokens`] (who a token is) → [`acl`] (may they) →
//! [`lowstate`] (the netapi clients, through the master's local socket or
//! in this process) → [`reply`] (JSON/YAML, Salt's error pages).
//! [`events`] is the event bus over HTTP (`/events`, `/hook`).
//! [`config`] reads `rest_cherrypy:`, `external_auth:` and friends;
//! [`context`] is what every request shares.

pub mod acl;
pub mod config;
pub mod context;
pub mod eauth;
pub mod events;
pub mod listen;
pub mod lowstate;
pub mod reply;
pub mod server;
pub mod tokens;
