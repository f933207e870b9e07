dev:
  '*':
    - overrides
