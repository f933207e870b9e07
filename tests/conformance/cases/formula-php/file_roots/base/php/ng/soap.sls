include:
  - php.deprecated
