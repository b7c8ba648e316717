/**
 * Device memory ownership: buffers owned by closeable, nestable scopes ({@link
 * dev.chorus.gpu.memory.DeviceScope}) over an injectable allocator, and a caching allocator that
 * keeps freed blocks for reuse so that a training loop never calls {@code cuMemFree} (which
 * synchronizes the device) in steady state.
 */
package dev.chorus.gpu.memory;
