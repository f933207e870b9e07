prod:
  'nomatch':
    - web
