//! Salt's configuration as `opts`: defaults, the config file, typed access.
