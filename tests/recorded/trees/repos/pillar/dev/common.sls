common: from-dev
branch: dev
list_key:
  - dev
