package demo;

import java.io.Serializable;

/** A value of the model cached by Spring (Java-serialized: hybridcache.jcache.serial-filter allows demo.*). */
public record Label(long id, String lang, String text) implements Serializable {}
