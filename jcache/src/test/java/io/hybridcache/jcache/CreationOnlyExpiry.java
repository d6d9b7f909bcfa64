package io.hybridcache.jcache;

import java.io.Serializable;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/** Tests: an expiry policy that sets a duration at creation only (access and update leave it as it is). */
public abstract class CreationOnlyExpiry implements ExpiryPolicy, Serializable {
  private static final long serialVersionUID = 1L;

  @Override
  public Duration getExpiryForAccess() {
    return null;
  }

  @Override
  public Duration getExpiryForUpdate() {
    return null;
  }
}
