service:
  test.succeed_without_changes:
    - name: my-service
    - watch:
      - test: existing
existing:
  test.nop
src_watch:
  test.nop:
    - watch_in:
      - test: service
src_onchanges:
  test.nop:
    - onchanges_in:
      - test: service
      - test: existing
src_onfail:
  test.nop:
    - onfail_in:
      - service
src_listen:
  test.nop:
    - listen_in:
      - test: service
src_byname:
  test.nop:
    - require_in:
      - test: my-service
src_barename:
  test.nop:
    - require_in:
      - lib-b-name
src_sls:
  test.nop:
    - require_in:
      - sls: lib
src_dict:
  test.nop:
    - require_in:
        test: existing
    - watch_in:
        test: existing
src_twice:
  test.nop:
    - require_in:
      - test: lib_a
    - require_in:
      - test: lib_a
src_bare_missing:
  test.nop:
    - require_in:
      - no_such_id_or_name
