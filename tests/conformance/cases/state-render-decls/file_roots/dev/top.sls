base:
  '*':
    - ignored_base_section
dev:
  '*':
    - pkgs
    - base: decls
