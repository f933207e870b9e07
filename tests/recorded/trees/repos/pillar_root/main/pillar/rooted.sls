rooted: from-pillar_root
