{% set state = 'snmp' %}
{% include "php/installed.jinja" %}
