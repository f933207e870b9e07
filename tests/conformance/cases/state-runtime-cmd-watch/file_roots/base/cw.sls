{% set d = grains['tmp'] %}
conf:
  file.managed:
    - name: {{ d }}/app.conf
    - contents: hello
reload:
  cmd.wait:
    - name: echo reloaded
    - watch:
      - file: conf
notify:
  cmd.run:
    - name: echo notified
    - onchanges:
      - file: conf
guarded:
  cmd.run:
    - name: touch {{ d }}/marker
    - creates: {{ d }}/marker
unless_file:
  cmd.run:
    - name: echo never
    - unless: test -f {{ d }}/app.conf
req_file:
  test.nop:
    - require:
      - file: {{ d }}/app.conf
watch_test:
  test.succeed_without_changes:
    - watch:
      - file: conf
failing:
  cmd.run:
    - name: exit 3
after_fail:
  cmd.run:
    - name: echo rescued
    - onfail:
      - cmd: failing
listener:
  cmd.run:
    - name: echo listened
    - listen:
      - file: conf
