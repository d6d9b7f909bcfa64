package io.hybridcache.jcache;

import javax.management.MBeanServer;
import javax.management.MBeanServerBuilder;
import javax.management.MBeanServerDelegate;

/**
 * The MBeanServerBuilder the TCK runs with ({@code javax.management.builder.initial}): the platform
 * server's delegate reports the agent id the TCK is told ({@code org.jsr107.tck.management.agentId}),
 * so the TCK's management tests find this provider's beans by that id.
 */
public final class TckMBeanServerBuilder extends MBeanServerBuilder {
  @Override
  public MBeanServerDelegate newMBeanServerDelegate() {
    return new MBeanServerDelegate() {
      @Override
      public String getMBeanServerId() {
        return System.getProperty("org.jsr107.tck.management.agentId", super.getMBeanServerId());
      }
    };
  }

  @Override
  public MBeanServer newMBeanServer(String defaultDomain, MBeanServer outer, MBeanServerDelegate delegate) {
    return super.newMBeanServer(defaultDomain, outer, delegate);
  }
}
