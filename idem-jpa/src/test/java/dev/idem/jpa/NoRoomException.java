package dev.idem.jpa;

/** A business failure: recorded by idem and rethrown to every retry. */
public class NoRoomException extends Exception {

  private final String guest;

  public NoRoomException(String message, String guest) {
    super(message);
    this.guest = guest;
  }

  public String guest() {
    return guest;
  }
}
