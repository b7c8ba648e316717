/**
 * A minimal JSON writer and reader (RFC 8259) for the small documents this project writes: shard
 * manifests, evaluation reports, CLI output. Streaming on the write side, a tree of plain Java
 * values on the read side. Not a general-purpose JSON library: no data binding, no comments, no
 * streaming reader.
 */
package dev.chorus.learning.json;
