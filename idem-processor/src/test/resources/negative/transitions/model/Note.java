package com.example.flow.model;

/** Not an entity. */
public class Note {
  private long id;
  private OrderStatus status;
}
