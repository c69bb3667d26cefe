#!/usr/bin/env bash
echo "from register.json"
