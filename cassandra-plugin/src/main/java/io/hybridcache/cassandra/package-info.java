/** Cassandra integration of hybridcache: placeholder until its issue. */
package io.hybridcache.cassandra;
