base:
  '*':
    - php
