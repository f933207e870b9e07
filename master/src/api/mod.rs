//! `brine-api`: salt-api's `rest_cherrypy` interface in front of the
//! master, for Salt's own clients (pepper, SaltGUI, CI pipelines). A
//! request's path: [`listen`] (connections, TLS) → [`server`] (routes,
//! bodies, bounds) → [`crate::eauth`] (who a login or a token is, and
//! may they) → [`lowstate`] (the netapi clients, through the master's local socket or
//! in this process) → [`reply`] (JSON/YAML, Salt's error pages).
//! [`events`] is the event bus over HTTP (`/events`, `/hook`).
//! [`app`] serves a web console's files (`app`, `static`), as
//! rest_cherrypy does for SaltGUI. [`config`] reads `rest_cherrypy:`,
//! `external_auth:` and friends;
//! [`context`] is what every request shares.

pub mod app;
pub mod config;
pub mod context;
pub mod events;
pub mod listen;
pub mod lowstate;
pub mod reply;
pub mod server;
