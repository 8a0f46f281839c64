import{d as a}from"./chunks/chunk-RU6DHWZV.js";a();
