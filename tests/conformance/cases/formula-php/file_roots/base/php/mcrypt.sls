{% set state = 'mcrypt' %}
{% include "php/installed.jinja" %}
