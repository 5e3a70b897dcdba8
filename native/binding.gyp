{
  "targets": [
    {
      "target_name": "peer_cred",
      "sources": ["peer_cred.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
