//! PillarStack (`ext_pillar: - stack: ...`).
