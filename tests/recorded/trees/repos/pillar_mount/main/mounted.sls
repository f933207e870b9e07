mounted: from-pillar_mount
