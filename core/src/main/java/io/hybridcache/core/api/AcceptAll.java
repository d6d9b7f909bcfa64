package io.hybridcache.core.api;

/** Admits every eviction (the default). Thread-safe: stateless. */
public final class AcceptAll implements AdmissionPolicy {
  @Override
  public boolean accept(long keyHash, int bytes) {
    return true;
  }

  @Override
  public long rejected() {
    return 0;
  }

  @Override
  public String name() {
    return "accept-all";
  }
}
