package com.example.flow.model;

import jakarta.persistence.Entity;

/** An entity without @Id. */
@Entity
public class Draft {
  private long id;
  private OrderStatus status;
}
