package io.hybridcache.core.catalog;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.DeviceCounters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST-ONLY wrapper device: counts syncs, can hold the first sync until released, and can ignore
 * close so a memory device survives a catalogue reopen. Thread-safe if the delegate is.
 */
final class TestDevice implements Device {
  final Device delegate;
  final AtomicInteger syncs = new AtomicInteger();
  final CountDownLatch firstSyncEntered = new CountDownLatch(1);
  volatile CountDownLatch holdFirstSync;
  volatile boolean ignoreClose;

  TestDevice(Device delegate) {
    this.delegate = delegate;
  }

  @Override
  public void sync() throws IOException {
    if (syncs.incrementAndGet() == 1) {
      firstSyncEntered.countDown();
      CountDownLatch hold = holdFirstSync;
      if (hold != null) {
        try {
          if (!hold.await(30, TimeUnit.SECONDS)) {
            throw new IOException("test never released the first sync");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
    }
    delegate.sync();
  }

  @Override public int slotCount() { return delegate.slotCount(); }
  @Override public long slotBytes() { return delegate.slotBytes(); }
  @Override public boolean directIo() { return delegate.directIo(); }
  @Override public void write(int slot, long offset, ByteBuffer src) throws IOException { delegate.write(slot, offset, src); }
  @Override public void read(int slot, long offset, ByteBuffer dst) throws IOException { delegate.read(slot, offset, dst); }
  @Override public void discard(int slot) throws IOException { delegate.discard(slot); }
  @Override public boolean allocated(int slot) { return delegate.allocated(slot); }
  @Override public DeviceCounters counters() { return delegate.counters(); }

  @Override
  public void close() throws IOException {
    if (!ignoreClose) {
      delegate.close();
    }
  }
}
