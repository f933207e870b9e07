common: from-main
branch: main
list_key:
  - main
