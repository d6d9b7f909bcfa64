package io.hybridcache.core.engine;

import java.io.IOException;

/** An Index that forwards every call; tests override one method to force an interleaving. */
class ForwardingIndex implements Index {
  private final Index d;

  ForwardingIndex(Index delegate) {
    this.d = delegate;
  }

  @Override public long get(long hash) { return d.get(hash); }
  @Override public long put(long hash, long entry) { return d.put(hash, entry); }
  @Override public boolean replace(long hash, long expected, long update) { return d.replace(hash, expected, update); }
  @Override public boolean remove(long hash, long expected) { return d.remove(hash, expected); }
  @Override public long remove(long hash) { return d.remove(hash); }
  @Override public long size() { return d.size(); }
  @Override public long memoryBytes() { return d.memoryBytes(); }
  @Override public void forEach(EntryVisitor visitor) { d.forEach(visitor); }
  @Override public void clear() { d.clear(); }
  @Override public void flush() { d.flush(); }
  @Override public void close() throws IOException { d.close(); }
}
