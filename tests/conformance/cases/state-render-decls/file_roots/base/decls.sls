include:
  - excl
exclude:
  - sls: excl
  - id: excluded_id
  - id: not_there
short_string:
  test.nop
short_empty_list:
  test.nop: []
short_with_args:
  test.succeed_with_changes:
    - name: with args
    - order: 5
full_form:
  test:
    - succeed_without_changes
    - name: full
mixed_order:
  cmd.run:
    - name: echo hi
  test:
    - nop
  file.managed:
    - name: /tmp/x
dotted.deep.name:
  test.fail_without_changes.extra: []
explicit_sls:
  __sls__: custom
  __env__: elsewhere
  test.nop: []
underscored:
  _private: [keep]
  test.nop: []
extend:
  short_string:
    test.nop:
      - name: extended
  from_excl:
    test:
      - name: ext2
