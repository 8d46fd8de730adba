#!/usr/bin/env bash
# Makes the TLS test files of this folder (see README.md). Run from this folder: bash gen.sh
set -euo pipefail
cd "$(dirname "$0")"
days=36500
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }
# a CA for the server certificates, one for client certificates
for ca in ca client-ca; do
  key "$ca"
  openssl req -x509 -new -key "$ca.key" -sha256 -days $days -subj "/CN=Fairway test $ca" -out "$ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
done
# leaf NAME CA SAN [rsa]
leaf() {
  if [ "${4:-}" = rsa ]; then openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key"; else key "$1"; fi
  openssl req -new -key "$1.key" -subj "/CN=$1" -out "$1.csr"
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days $days -sha256 \
    -extfile "$1.ext" -out "$1.pem"
  rm -f "$1.csr" "$1.ext"
}
leaf a ca "DNS:a.test,DNS:localhost,IP:127.0.0.1"
# a renewal of a.pem: same names and CA, a new key and serial (the certificate reload tests)
leaf a-renewed ca "DNS:a.test,DNS:localhost,IP:127.0.0.1"
leaf b ca "DNS:b.test" rsa
leaf wild ca "DNS:*.wild.test"
leaf client client-ca "DNS:client.test"
# expired: valid in 2020 only, signed with openssl ca (x509 -req cannot date a certificate in the past)
key expired
openssl req -new -key expired.key -subj "/CN=expired" -out expired.csr
work=$(mktemp -d)
touch "$work/index.txt"
cat > "$work/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $work/index.txt
new_certs_dir = $work
serial = $work/serial
default_md = sha256
policy = any
copy_extensions = none
x509_extensions = ext
[any]
commonName = supplied
[ext]
subjectAltName = DNS:expired.test
basicConstraints = CA:FALSE
CNF
echo 01 > "$work/serial"
openssl ca -batch -config "$work/ca.cnf" -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
  -startdate 20200101000000Z -enddate 20200201000000Z -notext
rm -rf "$work" expired.csr ca.srl client-ca.srl
