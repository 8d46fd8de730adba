#!/bin/sh
# Makes the PEM fixtures of the upstream TLS tests (see README.md). Run in this folder.
set -e
days=36500
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }
ca() {
  key "$1"
  openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days $days -sha256 \
    -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign -out "$1.pem"
}
leaf() { # name, CN, SAN, extendedKeyUsage[, signing CA (default ca)]
  signer=${5:-ca}
  key "$1"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:false\n' "$3" "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$signer.pem" -CAkey "$signer.key" -CAcreateserial -days $days -sha256 \
    -extfile "$1.ext" -out "$1.pem"
  rm "$1.csr" "$1.ext"
}
ca ca "Fairway Test CA"
ca other-ca "Unrelated Test CA"
leaf backend 127.0.0.1 "IP:127.0.0.1,DNS:localhost" serverAuth
leaf api-internal api.internal "DNS:api.internal" serverAuth
leaf client fairway-client "DNS:fairway-client" clientAuth
# the reload tests: the backends' CA replaced by a new one, and the backend certificate renewed under it
ca renewed-ca "Fairway Renewed Test CA"
leaf backend-renewed 127.0.0.1 "IP:127.0.0.1,DNS:localhost" serverAuth renewed-ca
rm -f ca.srl renewed-ca.srl other-ca.key renewed-ca.key
