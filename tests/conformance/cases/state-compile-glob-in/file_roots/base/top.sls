base:
  '*':
    - globin
