include:
  - other
