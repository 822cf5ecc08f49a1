cat <<EOF > f
hi
EOF
for f in *.rs; do sed -i s/a/b/ "$f"; done