pdnsapi:
  pip.installed:
    - name: pdnsapi >= 0.3.0b3
    - reload_modules: True
