tier: prod
