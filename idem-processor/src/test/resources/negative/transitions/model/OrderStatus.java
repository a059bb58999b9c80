package com.example.flow.model;

public enum OrderStatus {
  CREATED, PAID, SHIPPED, FINISHED
}
