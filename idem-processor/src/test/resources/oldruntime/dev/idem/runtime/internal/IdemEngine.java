package dev.idem.runtime.internal;

/** The door class of an idem runtime of another version: the processor looks for it, and reads its version. */
public final class IdemEngine {

  private IdemEngine() {}
}
