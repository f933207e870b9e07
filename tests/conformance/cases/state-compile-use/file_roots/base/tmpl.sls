template:
  test.succeed_without_changes:
    - name: template-name
    - comment: from template
    - user: root
    - mode: '0644'
    - require:
      - test: base_dep
    - names_ignored: keep
base_dep:
  test.nop:
    - flag: 1
