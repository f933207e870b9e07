{% set state = 'xcache' %}
{% include "php/installed.jinja" %}
