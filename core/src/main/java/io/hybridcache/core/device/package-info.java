/**
 * Block devices and file-system helpers, depending on nothing else in the library: the {@link
 * io.hybridcache.core.device.Device} contract (fixed-size slots, 4 KiB-aligned I/O), {@link
 * io.hybridcache.core.device.FileDevice} (one file per slot, {@code O_DIRECT}, {@code fallocate}, write-life
 * hints through JNA) and {@link io.hybridcache.core.device.MemoryDevice} (tests); the directory lock,
 * atomic file replacement and file modes the engine and the catalogue share.
 */
package io.hybridcache.core.device;
